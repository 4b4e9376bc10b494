#version 450
// The Vulkan clients' vertex shader: a clip-space position and a colour per vertex,
// moved by an instance offset from a push constant block (vk_triangle passes zero).
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(push_constant) uniform Push { vec4 offset; vec4 tint; } push;
layout(location = 0) out vec4 v_color;
void main() {
    gl_Position = vec4(position + push.offset.xyz * float(gl_InstanceIndex), 1.0);
    v_color = color * push.tint;
}
