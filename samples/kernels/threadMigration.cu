// The kernel of threadMigration: each thread that launches it in its context gets a known
// pattern back.

// out[i] = 32 - i for each of the block's threads (one block of 32).
extern "C" __global__ void count_down(int *out)
{
    out[threadIdx.x] = 32 - (int)threadIdx.x;
}
