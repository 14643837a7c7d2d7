// The scheduler thread's entry point (see component-thread.ts): kube-scheduler alone, without the
// controllers, so its bundle (scheduler.cjs) is a fifth of the components' one.
import { componentThreadData, runComponentThread } from './component-thread.js';
import { startScheduler } from './scheduler-host.js';

const data = componentThreadData();
if (data?.components.join() !== 'scheduler')
  throw new Error('scheduler-main.js runs only as the control plane scheduler thread');
runComponentThread(data, (clients, _settings, _names, _fakeNodes, leaderElection) => {
  const scheduler = startScheduler(clients, leaderElection);
  return { ready: Promise.resolve(), stop: () => scheduler.stop() };
});
