// The resolver's operation model, built once, when first imported; nothing changes it after.
import { type ApiModel, loadModel } from './operations.ts';

export const resolverModel: ApiModel = loadModel('did-resolver');
