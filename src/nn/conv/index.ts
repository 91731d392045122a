// Graph layers in tfjs-layers' idiom (PyG's convolutions), and the graph they read.
export {GcnConv, gcnConv} from './gcn_conv';
export type {GcnConvArgs} from './gcn_conv';
export {SageConv, sageConv} from './sage_conv';
export type {SageConvArgs} from './sage_conv';
export {GinConv, ginConv} from './gin_conv';
export type {GinConvArgs} from './gin_conv';
export {GineConv, gineConv} from './gine_conv';
export type {GineConvArgs, GineKwargs} from './gine_conv';
export {GatConv, gatConv} from './gat_conv';
export type {GatConvArgs} from './gat_conv';
export {GraphConv} from './graph_conv';
export type {GraphActivation, GraphConvArgs, GraphInitializer, GraphKwargs} from './graph_conv';
export {withGraph} from './graph_input';
export type {GraphInput, GraphLayerInput} from './graph_input';
export type {NeighborReduce} from './neighbor_reduce';
export {inferLayerwise, predictLayerwise} from './layerwise_model';
export type {LayerwiseInputs} from './layerwise_model';
