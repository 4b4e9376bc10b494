#version 450
#extension GL_EXT_nonuniform_qualifier : require
// Samples one of a runtime-sized array of textures, indexed per fragment (non-uniform
// across a draw's instances): bindless on anv.
layout(set = 0, binding = 0) uniform sampler2D textures[];
layout(location = 0) in vec2 v_uv;
layout(location = 1) flat in int v_index;
layout(location = 0) out vec4 frag_color;
void main() {
    int i = (v_index + int(gl_FragCoord.x) / 16) % 4;
    frag_color = texture(textures[nonuniformEXT(i)], v_uv);
}
