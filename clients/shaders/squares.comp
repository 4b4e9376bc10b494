#version 450
// vk_compute: each invocation writes i*i + 3 into a storage buffer and a colour
// computed from its coordinates into a storage image.
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) buffer Data { uint values[]; } data;
layout(binding = 1, rgba8) uniform writeonly image2D img;
void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    uvec2 size = gl_NumWorkGroups.xy * gl_WorkGroupSize.xy;
    uint i = p.y * size.x + p.x;
    data.values[i] = i * i + 3u;
    vec2 uv = (vec2(p) + 0.5) / vec2(size);
    imageStore(img, ivec2(p), vec4(uv, fract(uv.x * uv.y * 7.0), 1.0));
}
