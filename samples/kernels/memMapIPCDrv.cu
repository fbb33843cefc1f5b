// The kernel of memMapIPCDrv: the child process fills the memory it imported from its parent.

// Sets each of the `n` bytes at `p` to `value`, with a grid-stride loop (any grid size covers
// the whole buffer).
extern "C" __global__ void fill_bytes(unsigned char *p, unsigned long long n, unsigned char value)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        p[i] = value;
    }
}
