// The Events about one object as a user lists them (`kubectl get events --field-selector
// involvedObject.kind=K,involvedObject.name=N`), for tests that check a controller's events.
import type { Event } from '../../src/api/types/core-v1.generated.js';

/** Lists through `kubectlOk` (kubectl that must succeed, returning stdout) the Events about `kind`/`name`. */
export async function eventsAbout(
  kubectlOk: (args: string[]) => Promise<string>,
  kind: string,
  name: string,
): Promise<Event[]> {
  const list = JSON.parse(
    await kubectlOk([
      'get',
      'events',
      '--field-selector',
      `involvedObject.kind=${kind},involvedObject.name=${name}`,
      '-o',
      'json',
    ]),
  ) as { items: Event[] };
  return list.items;
}
