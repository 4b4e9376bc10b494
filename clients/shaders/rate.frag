#version 450
// A colour from the fragment's position (normalised by the viewport size, a push
// constant) and an interpolated varying: at a 2x2 shading rate each 2x2 block takes the
// value at its centre, which a full-rate render at half the size computes per pixel.
layout(push_constant) uniform Push { vec2 size; } push;
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 frag_color;
void main() {
    vec2 p = gl_FragCoord.xy / push.size;
    frag_color = vec4(fract(p.x * 3.0), fract(p.y * 5.0), v_uv.x * v_uv.y, 1.0);
}
