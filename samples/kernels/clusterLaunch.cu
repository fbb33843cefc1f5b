// arch: sm_90
// The kernel of clusterLaunch: launched in thread-block clusters by cuLaunchKernelEx, each block
// reports where it sits in its cluster (PTX's cluster special registers) and reads a
// neighbour's shared memory through the cluster's shared window (distributed shared memory,
// which only the blocks of one cluster share).

__device__ unsigned int cluster_ctarank()
{
    unsigned int r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ unsigned int cluster_nctarank()
{
    unsigned int r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}

__device__ unsigned int clusterid_x()
{
    unsigned int r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}

__device__ unsigned int cluster_nctaid_x()
{
    unsigned int r;
    asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(r));
    return r;
}

// Waits until every thread of every block of the cluster has arrived, with release/acquire
// ordering of their memory operations (shared memory of the whole cluster included).
__device__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::
                     : "memory");
}

// For block b (a 1D grid): info[5b] = its rank in its cluster, info[5b + 1] = the blocks per
// cluster, info[5b + 2] = the cluster's index in the grid, info[5b + 3] = the cluster's width
// in blocks, info[5b + 4] = the rank that the next block of the cluster (rank + 1, wrapping)
// wrote into its own shared memory, read through the cluster's shared window.
extern "C" __global__ void cluster_info(unsigned int *info)
{
    __shared__ unsigned int rank_here;
    unsigned int rank = cluster_ctarank();
    unsigned int size = cluster_nctarank();
    if (threadIdx.x == 0) {
        rank_here = rank;
    }
    // Every block of the cluster has written its rank before anyone reads a neighbour's.
    cluster_sync();
    if (threadIdx.x == 0) {
        unsigned int local = (unsigned int)__cvta_generic_to_shared(&rank_here);
        unsigned int remote;
        unsigned int value;
        // The address of the same variable in block `(rank + 1) % size` of this cluster.
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                     : "=r"(remote)
                     : "r"(local), "r"((rank + 1) % size));
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(value) : "r"(remote) : "memory");
        unsigned int *out = info + 5 * blockIdx.x;
        out[0] = rank;
        out[1] = size;
        out[2] = clusterid_x();
        out[3] = cluster_nctaid_x();
        out[4] = value;
    }
    // No block leaves while another may still read its shared memory.
    cluster_sync();
}
