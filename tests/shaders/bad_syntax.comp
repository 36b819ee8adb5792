#version 450
layout(local_size_x = 64) in;
void main() {
  uint x = 1u;
  x = x +;   // line 5: the error
}
