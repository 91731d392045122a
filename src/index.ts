// tfjs-backend-wholememory: `import 'tfjs-backend-wholememory'` registers the
// 'wholememory' backend; the named exports are the library's own API.
import {registerWholeMemoryBackend} from './backend/register';

registerWholeMemoryBackend();

export * from './wm';
export {WholeMemoryBackend} from './backend/backend_wholememory';
export {BACKEND_NAME} from './backend/register';
