// The kernels of streamGraphs: a two-pass sum of floats in double precision, whose passes the
// graphs chain (the first writes one partial sum per block, the second adds the partial sums).

#define THREADS 512

// Adds the block's `THREADS` values of `s` into s[0] (a tree in shared memory).
__device__ void block_sum(double *s)
{
    for (unsigned int half = blockDim.x / 2; half > 0; half /= 2) {
        __syncthreads();
        if (threadIdx.x < half) {
            s[threadIdx.x] += s[threadIdx.x + half];
        }
    }
    __syncthreads();
}

// partial[b] = the sum of the elements of `in` that block b's threads visit (a grid-stride loop),
// for the first `partials` blocks. Launched with `THREADS` threads per block.
extern "C" __global__ void partial_sums(const float *in, double *partial, unsigned long long n,
                                        unsigned long long partials)
{
    __shared__ double s[THREADS];
    double sum = 0.0;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        sum += (double)in[i];
    }
    s[threadIdx.x] = sum;
    block_sum(s);
    if (threadIdx.x == 0 && blockIdx.x < partials) {
        partial[blockIdx.x] = s[0];
    }
}

// *result = the sum of the `n` doubles of `partial`. Launched as one block of `THREADS` threads.
extern "C" __global__ void final_sum(const double *partial, double *result, unsigned long long n)
{
    __shared__ double s[THREADS];
    double sum = 0.0;
    for (unsigned long long i = threadIdx.x; i < n; i += blockDim.x) {
        sum += partial[i];
    }
    s[threadIdx.x] = sum;
    block_sum(s);
    if (threadIdx.x == 0) {
        *result = s[0];
    }
}
