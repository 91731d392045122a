// How float32 matrix products may round on the GPU, as torch.set_float32_matmul_precision:
// 'highest' full float32; 'high' TF32 tensor cores (inputs rounded to 10 mantissa bits);
// 'medium' bfloat16 tensor cores (7 bits). Every product accumulates in float32 and
// reads and writes float32; the CPU's products are float32 whatever the setting.
#pragma once

namespace wm {

enum class MatmulPrecision { Highest = 0, High = 1, Medium = 2 };

void setMatmulPrecision(MatmulPrecision p);
MatmulPrecision matmulPrecision();

}  // namespace wm
