// The backend's own gradients, registered over tfjs-core's on import
// (src/index.ts imports this file): Sum and Mean without tf.ones, Relu in one pass; the fused GraphSAGE
// layer's, an input at a time.
import {registerReductionGradients} from './reduction_gradients';
import {registerReluGradient} from './relu_gradient';
import {registerSageFixedLayerGradient} from './sage_fixed_layer_gradient';

registerReductionGradients();
registerReluGradient();
registerSageFixedLayerGradient();
