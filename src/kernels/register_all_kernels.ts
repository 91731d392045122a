// The backend's kernels, registered on import (src/index.ts imports this
// file, as tfjs' backends do): the kernels with a native path, one file each,
// then every other kernel tfjs-backend-cpu has as a forward to it, so every
// tfjs op works.
import '@tensorflow/tfjs-backend-cpu';
import {getKernelsForBackend, KernelConfig, registerKernel} from '@tensorflow/tfjs-core';

import {BACKEND_NAME} from '../backend/backend_name';
import {fallbackKernel} from '../backend/fallback';

import {absConfig} from './Abs';
import {acosConfig} from './Acos';
import {acoshConfig} from './Acosh';
import {addConfig} from './Add';
import {addNConfig} from './AddN';
import {allConfig} from './All';
import {anyConfig} from './Any';
import {argMaxConfig} from './ArgMax';
import {argMinConfig} from './ArgMin';
import {asinConfig} from './Asin';
import {asinhConfig} from './Asinh';
import {atanConfig} from './Atan';
import {atan2Config} from './Atan2';
import {atanhConfig} from './Atanh';
import {avgPoolConfig} from './AvgPool';
import {avgPoolGradConfig} from './AvgPoolGrad';
import {batchMatMulConfig} from './BatchMatMul';
import {bincountConfig} from './Bincount';
import {castConfig} from './Cast';
import {ceilConfig} from './Ceil';
import {clipByValueConfig} from './ClipByValue';
import {concatConfig} from './Concat';
import {conv2DConfig} from './Conv2D';
import {conv2DBackpropFilterConfig} from './Conv2DBackpropFilter';
import {conv2DBackpropInputConfig} from './Conv2DBackpropInput';
import {cosConfig} from './Cos';
import {coshConfig} from './Cosh';
import {cumprodConfig} from './Cumprod';
import {cumsumConfig} from './Cumsum';
import {denseBincountConfig} from './DenseBincount';
import {depthwiseConv2dNativeConfig} from './DepthwiseConv2dNative';
import {depthwiseConv2dNativeBackpropFilterConfig} from './DepthwiseConv2dNativeBackpropFilter';
import {depthwiseConv2dNativeBackpropInputConfig} from './DepthwiseConv2dNativeBackpropInput';
import {einsumConfig} from './Einsum';
import {eluConfig} from './Elu';
import {eluGradConfig} from './EluGrad';
import {equalConfig} from './Equal';
import {erfConfig} from './Erf';
import {expConfig} from './Exp';
import {expandDimsConfig} from './ExpandDims';
import {expm1Config} from './Expm1';
import {fillConfig} from './Fill';
import {floorConfig} from './Floor';
import {floorDivConfig} from './FloorDiv';
import {fusedBatchNormConfig} from './FusedBatchNorm';
import {fusedConv2DConfig} from './FusedConv2D';
import {fusedDepthwiseConv2DConfig} from './FusedDepthwiseConv2D';
import {fusedMatMulConfig} from './FusedMatMul';
import {gatherNdConfig} from './GatherNd';
import {gatherV2Config} from './GatherV2';
import {greaterConfig} from './Greater';
import {greaterEqualConfig} from './GreaterEqual';
import {identityConfig} from './Identity';
import {isFiniteConfig} from './IsFinite';
import {isInfConfig} from './IsInf';
import {isNanConfig} from './IsNan';
import {leakyReluConfig} from './LeakyRelu';
import {lessConfig} from './Less';
import {lessEqualConfig} from './LessEqual';
import {logConfig} from './Log';
import {log1pConfig} from './Log1p';
import {logicalAndConfig} from './LogicalAnd';
import {logicalNotConfig} from './LogicalNot';
import {logicalOrConfig} from './LogicalOr';
import {maxConfig} from './Max';
import {maximumConfig} from './Maximum';
import {maxPoolConfig} from './MaxPool';
import {maxPoolGradConfig} from './MaxPoolGrad';
import {meanConfig} from './Mean';
import {minConfig} from './Min';
import {minimumConfig} from './Minimum';
import {mirrorPadConfig} from './MirrorPad';
import {modConfig} from './Mod';
import {multiplyConfig} from './Multiply';
import {negConfig} from './Neg';
import {notEqualConfig} from './NotEqual';
import {oneHotConfig} from './OneHot';
import {onesLikeConfig} from './OnesLike';
import {packConfig} from './Pack';
import {padV2Config} from './PadV2';
import {powConfig} from './Pow';
import {preluConfig} from './Prelu';
import {prodConfig} from './Prod';
import {realDivConfig} from './RealDiv';
import {reciprocalConfig} from './Reciprocal';
import {reluConfig} from './Relu';
import {relu6Config} from './Relu6';
import {reluGradConfig} from './ReluGrad';
import {sageBlockLayerConfig} from './SageBlockLayer';
import {sageFixedLayerConfig} from './SageFixedLayer';
import {reshapeConfig} from './Reshape';
import {reverseConfig} from './Reverse';
import {roundConfig} from './Round';
import {rsqrtConfig} from './Rsqrt';
import {scatterNdConfig} from './ScatterNd';
import {searchSortedConfig} from './SearchSorted';
import {selectConfig} from './Select';
import {seluConfig} from './Selu';
import {sigmoidConfig} from './Sigmoid';
import {signConfig} from './Sign';
import {sinConfig} from './Sin';
import {sinhConfig} from './Sinh';
import {sliceConfig} from './Slice';
import {softmaxConfig} from './Softmax';
import {softplusConfig} from './Softplus';
import {sparseSegmentMeanConfig} from './SparseSegmentMean';
import {sparseSegmentSumConfig} from './SparseSegmentSum';
import {splitVConfig} from './SplitV';
import {sqrtConfig} from './Sqrt';
import {squareConfig} from './Square';
import {squaredDifferenceConfig} from './SquaredDifference';
import {stepConfig} from './Step';
import {stridedSliceConfig} from './StridedSlice';
import {subConfig} from './Sub';
import {sumConfig} from './Sum';
import {tanConfig} from './Tan';
import {tanhConfig} from './Tanh';
import {tileConfig} from './Tile';
import {topKConfig} from './TopK';
import {transposeConfig} from './Transpose';
import {uniqueConfig} from './Unique';
import {unpackConfig} from './Unpack';
import {unsortedSegmentSumConfig} from './UnsortedSegmentSum';
import {zerosLikeConfig} from './ZerosLike';

export const nativeKernelConfigs: KernelConfig[] = [
  absConfig,
  acosConfig,
  acoshConfig,
  addConfig,
  addNConfig,
  allConfig,
  anyConfig,
  argMaxConfig,
  argMinConfig,
  asinConfig,
  asinhConfig,
  atan2Config,
  atanConfig,
  atanhConfig,
  avgPoolConfig,
  avgPoolGradConfig,
  batchMatMulConfig,
  bincountConfig,
  castConfig,
  ceilConfig,
  clipByValueConfig,
  concatConfig,
  conv2DBackpropFilterConfig,
  conv2DBackpropInputConfig,
  conv2DConfig,
  cosConfig,
  coshConfig,
  cumprodConfig,
  cumsumConfig,
  denseBincountConfig,
  depthwiseConv2dNativeBackpropFilterConfig,
  depthwiseConv2dNativeBackpropInputConfig,
  depthwiseConv2dNativeConfig,
  einsumConfig,
  eluConfig,
  eluGradConfig,
  equalConfig,
  erfConfig,
  expandDimsConfig,
  expConfig,
  expm1Config,
  fillConfig,
  floorConfig,
  floorDivConfig,
  fusedBatchNormConfig,
  fusedConv2DConfig,
  fusedDepthwiseConv2DConfig,
  fusedMatMulConfig,
  gatherNdConfig,
  gatherV2Config,
  greaterConfig,
  greaterEqualConfig,
  identityConfig,
  isFiniteConfig,
  isInfConfig,
  isNanConfig,
  leakyReluConfig,
  lessConfig,
  lessEqualConfig,
  log1pConfig,
  logConfig,
  logicalAndConfig,
  logicalNotConfig,
  logicalOrConfig,
  maxConfig,
  maximumConfig,
  maxPoolConfig,
  maxPoolGradConfig,
  meanConfig,
  minConfig,
  minimumConfig,
  mirrorPadConfig,
  modConfig,
  multiplyConfig,
  negConfig,
  notEqualConfig,
  oneHotConfig,
  onesLikeConfig,
  packConfig,
  padV2Config,
  powConfig,
  preluConfig,
  prodConfig,
  realDivConfig,
  reciprocalConfig,
  relu6Config,
  reluGradConfig,
  sageBlockLayerConfig,
  sageFixedLayerConfig,
  reluConfig,
  reshapeConfig,
  reverseConfig,
  roundConfig,
  rsqrtConfig,
  scatterNdConfig,
  searchSortedConfig,
  selectConfig,
  seluConfig,
  sigmoidConfig,
  signConfig,
  sinConfig,
  sinhConfig,
  sliceConfig,
  softmaxConfig,
  softplusConfig,
  sparseSegmentMeanConfig,
  sparseSegmentSumConfig,
  splitVConfig,
  sqrtConfig,
  squareConfig,
  squaredDifferenceConfig,
  stepConfig,
  stridedSliceConfig,
  subConfig,
  sumConfig,
  tanConfig,
  tanhConfig,
  tileConfig,
  topKConfig,
  transposeConfig,
  uniqueConfig,
  unsortedSegmentSumConfig,
  unpackConfig,
  zerosLikeConfig,
];

const nativeNames = new Set<string>();
for (const config of nativeKernelConfigs) {
  registerKernel(config);
  nativeNames.add(config.kernelName);
}
for (const cpu of getKernelsForBackend('cpu')) {
  if (!nativeNames.has(cpu.kernelName)) registerKernel(fallbackKernel(cpu.kernelName, BACKEND_NAME));
}
