// Included by reduction.comp (#include next to the including file).
float reduce_op(float a, float b) { return a + b; }
