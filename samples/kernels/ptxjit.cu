// Each thread writes its global index: the kernel ptxjit links from PTX at run time.
extern "C" __global__ void myKernel(int *data)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = i;
}
