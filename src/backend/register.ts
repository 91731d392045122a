// Registers the 'wholememory' backend with tfjs-core. Its kernels are
// registered by kernels/register_all_kernels.ts and its gradients by
// gradients/register_all_gradients.ts, both imported by src/index.ts.
// The full tfjs registers gradients, optimizers and chained ops into
// tfjs-core (tfjs-core alone has none), so training works for users who
// import only '@tensorflow/tfjs-core'. It also brings tfjs-backend-cpu.
import '@tensorflow/tfjs';

import {registerBackend} from '@tensorflow/tfjs-core';

import * as path from 'path';

import {deviceStatus, native} from '../native/device';
import {checkOneTfjsCopy, ourCopies} from '../util/tfjs_copies';
import {BACKEND_NAME} from './backend_name';
import {WholeMemoryBackend} from './backend_wholememory';

let registered = false;

// The tfjs-core and tfjs-layers this package uses: another copy of either loaded beside them is refused by name.
const OURS = ourCopies();

export function registerWholeMemoryBackend(): void {
  if (registered) return;
  registered = true;
  checkOneTfjsCopy(OURS);
  // Priority 3 (above cpu's 1): importing the package makes it the default.
  registerBackend(
    BACKEND_NAME,
    () => {
      checkOneTfjsCopy(OURS); // a copy loaded after this package, before the backend is made
      const s = deviceStatus();
      // The C++ CPU kernels need the addon; TFJS_WHOLEMEMORY_HOST_KERNELS=0
      // forwards every host kernel to tfjs-backend-cpu instead.
      const hostKernels = s.addonLoaded && process.env.TFJS_WHOLEMEMORY_HOST_KERNELS !== '0';
      return new WholeMemoryBackend(native(), s.gpu, hostKernels);
    },
    3,
  );
}
