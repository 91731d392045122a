import {binaryKernel} from '../kernel_utils/binary_kernel';
import {BinaryOp} from '../kernel_utils/op_codes';

/**
 * relu's gradient from its input, dy * step(x), in one pass: tfjs-core's gradient
 * runs Step and then Multiply, a pass and a tensor of x's size more. Only this
 * backend has the kernel (relu_gradient.ts asks for it where it runs natively).
 */
export const WM_RELU_GRAD = 'WholeMemoryReluGrad';

export const reluGradConfig = binaryKernel(WM_RELU_GRAD, BinaryOp.ReluGrad, {dtypes: ['float32'], names: ['dy', 'x']});
