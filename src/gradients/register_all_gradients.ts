// The backend's own gradients, registered over tfjs-core's on import
// (src/index.ts imports this file): Sum and Mean without tf.ones, Relu in one pass.
import {registerReductionGradients} from './reduction_gradients';
import {registerReluGradient} from './relu_gradient';

registerReductionGradients();
registerReluGradient();
