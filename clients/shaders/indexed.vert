#version 450
// vk_descriptor_indexing: a unit quad (triangle strip) per instance, placed in a 2x2
// grid; the instance picks the texture.
layout(location = 0) out vec2 v_uv;
layout(location = 1) flat out int v_index;
void main() {
    vec2 corner = vec2(gl_VertexIndex & 1, gl_VertexIndex >> 1);
    vec2 cell = vec2(gl_InstanceIndex & 1, gl_InstanceIndex >> 1);
    gl_Position = vec4((cell + corner * 0.9 + 0.05) - 1.0, 0.0, 1.0);
    v_uv = corner * 2.0;
    v_index = gl_InstanceIndex;
}
