// The backend's own gradients, registered over tfjs-core's on import
// (src/index.ts imports this file): Sum and Mean without tf.ones, Relu in one pass; the fused GraphSAGE
// layers' (over a fixed fan-out and over a sampled block), an input at a time.
import {registerReductionGradients} from './reduction_gradients';
import {registerReluGradient} from './relu_gradient';
import {registerSageBlockLayerGradient} from './sage_block_layer_gradient';
import {registerSageFixedLayerGradient} from './sage_fixed_layer_gradient';

registerReductionGradients();
registerReluGradient();
registerSageBlockLayerGradient();
registerSageFixedLayerGradient();
