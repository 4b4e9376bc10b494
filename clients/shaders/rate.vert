#version 450
// vk_shading_rate: two triangles covering the viewport at depth 0.5, with a texture
// coordinate.
layout(location = 0) out vec2 v_uv;
void main() {
    vec2 corner = vec2(gl_VertexIndex & 1, gl_VertexIndex >> 1);
    gl_Position = vec4(corner * 2.0 - 1.0, 0.5, 1.0);
    v_uv = corner;
}
