#version 450
// vk_textured: a homogeneous clip-space position (w varies, for perspective) and a
// texture coordinate per vertex.
layout(location = 0) in vec4 position;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec2 v_uv;
void main() {
    gl_Position = position;
    v_uv = uv;
}
