// C = A + B, one thread per element: the kernel of vectorAddDrv and vectorAddMMAP.
extern "C" __global__ void VecAdd_kernel(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
