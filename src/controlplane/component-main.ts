// The component threads' entry point (see component-thread.ts): only the controller manager, the
// scheduler and the fake nodes, not the apiserver (the scheduler alone
// starts from scheduler-main.ts, smaller still). Bundled on its own (components.cjs), each thread
// loads about a third of the control plane's code, and holds a third of its compiled code.
import { componentThreadData, runComponentThread } from './component-thread.js';
import { startComponents } from './components.js';

const data = componentThreadData();
if (!data) throw new Error('component-main.js runs only as a control plane component thread');
runComponentThread(data, startComponents);
