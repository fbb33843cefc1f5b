// Rotates every slice of a volume by `theta` around the slice's centre, reading the volume through
// a 3D texture object (normalised coordinates, wrap addressing, linear filtering): the kernel of
// simpleTextureDrv. One thread per output voxel; blockIdx.z is the slice. Sampling at the centre
// of slice z, (z + 0.5) / depth, gives that slice alone: the filter's weight on its neighbours is 0.
extern "C" __global__ void transformKernel(float *out, int width, int height, int depth, float theta,
                                           unsigned long long tex)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z;
    if (x >= width || y >= height || z >= depth) {
        return;
    }
    const float u = (float)x - (float)width / 2;
    const float v = (float)y - (float)height / 2;
    const float s = cosf(theta), t = sinf(theta);
    const float tu = (u * s - v * t) / (float)width + 0.5f;
    const float tv = (v * s + u * t) / (float)height + 0.5f;
    const float tw = ((float)z + 0.5f) / (float)depth;
    out[((size_t)z * height + y) * width + x] = tex3D<float>(tex, tu, tv, tw);
}
