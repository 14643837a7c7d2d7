// The environment a benchmark runs the tkube CLI in: its own state directory and kubeconfig under
// `dir` (so runs beside each other, and the user's clusters, are not touched), and CI's plain
// progress lines, which the benchmarks time.
import { join } from 'node:path';

export function isolatedCliEnv(
  dir: string,
): NodeJS.ProcessEnv & { TKUBE_HOME: string; KUBECONFIG: string; CI: string } {
  return { ...process.env, TKUBE_HOME: join(dir, 'home'), KUBECONFIG: join(dir, 'kubeconfig'), CI: 'true' };
}
