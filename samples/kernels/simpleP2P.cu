// The kernel of simpleP2P: run on one GPU, it reads the other GPU's memory through peer access.

// dst[i] = 2 * src[i], one thread per element (the grid covers the buffers exactly).
extern "C" __global__ void double_it(const float *src, float *dst)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    dst[i] = src[i] * 2.0f;
}
