// C = A * B for row-major matrices whose sizes are multiples of the tile: each block computes one
// TILE x TILE tile of C, walking along A's row band and B's column band one tile at a time through
// shared memory. The kernel of matrixMulDrv, instantiated for three tile sizes (the sample picks
// the largest one the device can run).

template <int TILE>
__device__ void multiply_tiles(float *c, const float *a, const float *b, size_t a_width, size_t b_width)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    const size_t tx = threadIdx.x;
    const size_t ty = threadIdx.y;
    const size_t row = blockIdx.y * TILE + ty;
    const size_t col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (size_t k0 = 0; k0 < a_width; k0 += TILE) {
        a_tile[ty][tx] = a[row * a_width + k0 + tx];
        b_tile[ty][tx] = b[(k0 + ty) * b_width + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            sum += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();
    }
    c[row * b_width + col] = sum;
}

extern "C" __global__ void matrixMul_bs8_64bit(float *c, const float *a, const float *b, size_t a_width, size_t b_width)
{
    multiply_tiles<8>(c, a, b, a_width, b_width);
}

extern "C" __global__ void matrixMul_bs16_64bit(float *c, const float *a, const float *b, size_t a_width, size_t b_width)
{
    multiply_tiles<16>(c, a, b, a_width, b_width);
}

extern "C" __global__ void matrixMul_bs32_64bit(float *c, const float *a, const float *b, size_t a_width, size_t b_width)
{
    multiply_tiles<32>(c, a, b, a_width, b_width);
}
