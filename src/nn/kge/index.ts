// wm.nn.kge: knowledge-graph embedding models over embedding tables (PyG's torch_geometric.nn.kge).
import {ComplEx} from './complex';
import {DistMult} from './distmult';
import {KGE_MODELS, KgeModel, KgeModelName, KgeOptions} from './kge_model';
import {RotatE} from './rotate';
import {TransE} from './transe';

export {ComplEx, DistMult, KgeModel, RotatE, TransE};
export {KGE_MODELS, rowWidths} from './kge_model';
export type {KgeConfig, KgeModelName, KgeOptions, KgeSide} from './kge_model';
export {DEFAULT_KGE_LOSS, kgeLoss} from './kge_loss';
export {chunkLoss, stepRowsGradients} from './chunk_loss';
export type {KgeStepRows} from './chunk_loss';
export type {KgeLossName, KgeLossOptions} from './kge_loss';

export const transE = (o: KgeOptions): TransE => new TransE(o);
export const distMult = (o: KgeOptions): DistMult => new DistMult(o);
export const complEx = (o: KgeOptions): ComplEx => new ComplEx(o);
export const rotatE = (o: KgeOptions): RotatE => new RotatE(o);

const MAKERS: {[k in KgeModelName]: (o: KgeOptions) => KgeModel} = {transE, distMult, complEx, rotatE};

/** The model named `name` (one of KGE_MODELS). */
export function kgeModel(name: KgeModelName, o: KgeOptions): KgeModel {
  const make = Object.prototype.hasOwnProperty.call(MAKERS, name) ? MAKERS[name] : undefined;
  if (!make) throw new RangeError(`kge: model must be one of ${KGE_MODELS.join(', ')}, got ${name}`);
  return make(o);
}
