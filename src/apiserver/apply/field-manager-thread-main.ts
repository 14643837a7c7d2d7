// The field manager thread's own program (no upstream counterpart; see field-manager-thread-body.ts):
// bundled on its own as field-manager-thread.cjs beside the control plane's bundle, so the thread
// loads the field manager and the OpenAPI types only, not the whole control plane again.
import { isFieldManagerThread, runFieldManagerThread } from './field-manager-thread-body.js';

if (isFieldManagerThread()) runFieldManagerThread();
