#!/bin/sh
# Compiles the Vulkan clients' GLSL to the SPIR-V checked in beside it (the clients
# embed the .spv files). Needs glslangValidator (Debian: apt-get install -y glslang-tools).
# Run after editing a shader: clients/shaders/build.sh
set -eu
cd "$(dirname "$0")"
for src in *.vert *.frag *.comp; do
  glslangValidator -V --target-env vulkan1.1 -o "$src.spv" "$src" > /dev/null
done
