[numthreads(64,1,1)] void CSMain( { }
