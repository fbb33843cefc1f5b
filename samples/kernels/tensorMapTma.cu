// arch: sm_90
// The kernel of tensorMapTma: each block loads one tile of a 2D float matrix from global into
// shared memory with the Tensor Memory Accelerator (one cp.async.bulk.tensor, described by the
// CUtensorMap the host encoded with cuTensorMapEncodeTiled, completing on an mbarrier), then
// writes the tile, doubled, to the same place of another matrix.
#include <cuda.h>

#define TILE_W 32
#define TILE_H 16

// `map` describes the input matrix (`width` floats a row) with a TILE_W x TILE_H box; block
// (bx, by) handles the tile whose first element is (bx * TILE_W, by * TILE_H). The grid covers
// the matrix exactly and a block has TILE_W * TILE_H threads.
extern "C" __global__ void tile_copy(const __grid_constant__ CUtensorMap map, float *out, int width)
{
    __shared__ alignas(128) float tile[TILE_H][TILE_W];
    __shared__ alignas(8) unsigned long long barrier;
    unsigned int tile_addr = (unsigned int)__cvta_generic_to_shared(&tile[0][0]);
    unsigned int bar_addr = (unsigned int)__cvta_generic_to_shared(&barrier);
    int x = blockIdx.x * TILE_W;
    int y = blockIdx.y * TILE_H;
    unsigned int t = threadIdx.y * blockDim.x + threadIdx.x;

    if (t == 0) {
        // One arrival (this thread's) completes the phase, with the bytes the copy brings.
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
        // Make the initialised barrier visible to the copy engine (the async proxy).
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                     "r"((unsigned int)sizeof(tile))
                     : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(tile_addr),
                     "l"((unsigned long long)&map), "r"(x), "r"(y), "r"(bar_addr)
                     : "memory");
    }
    // Every thread waits for phase 0 of the barrier: the tile has landed.
    unsigned int done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar_addr)
                     : "memory");
    }
    out[(y + threadIdx.y) * width + x + threadIdx.x] = 2.0f * tile[threadIdx.y][threadIdx.x];
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar_addr) : "memory");
    }
}
