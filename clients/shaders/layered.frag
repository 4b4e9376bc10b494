#version 450
// vk_texture_array: vk_descriptor_indexing's scene with the four textures as the
// layers of one 2D array texture, the layer picked as the descriptor was there.
layout(set = 0, binding = 0) uniform sampler2DArray textures;
layout(location = 0) in vec2 v_uv;
layout(location = 1) flat in int v_index;
layout(location = 0) out vec4 frag_color;
void main() {
    int i = (v_index + int(gl_FragCoord.x) / 16) % 4;
    frag_color = texture(textures, vec3(v_uv, float(i)));
}
