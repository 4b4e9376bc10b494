#version 450
// Interpolated varyings and the fragment's block: at a 2x2 shading rate each 2x2 block
// takes the varyings' values at its centre, which a full-rate render at half the size
// computes per pixel. gl_FragCoord scaled to blocks (push.scale: 0.5 at the 2x2 rate, 1
// at full rate) floors to the block index wherever in its fragment area the
// implementation puts gl_FragCoord. Block (5, 9) is discarded.
layout(push_constant) uniform Push { vec2 scale; } push;
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 frag_color;
void main() {
    vec2 block = floor(gl_FragCoord.xy * push.scale);
    if (block == vec2(5.0, 9.0))
        discard;
    frag_color = vec4(fract(v_uv.x * 3.0), fract(v_uv.y * 5.0), v_uv.x * v_uv.y,
                      mod(block.x + 2.0 * block.y, 5.0) / 4.0);
}
