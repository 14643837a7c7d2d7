// Making sure a container's image is on the node (pkg/kubelet/images): the pull policy decides
// whether to pull, failed pulls back off per pod and image (10 s doubling to 5 min), and events
// say what happened in the kubelet's words. Nodes usually cannot reach a registry: pull errors
// add how to load the image from the host instead.

import { goQuote } from '../../../api/selectors/go-text.js';
import type { Container, ObjectReference, Pod } from '../../../api/types/core-v1.generated.js';
import { Backoff } from '../backoff.js';
import type { CriClient } from '../cri/client.js';
import type { Image, PodSandboxConfig } from '../cri/types.js';
import { goDuration } from '../prober/go-text.js';

export type ImageErrorReason =
  | 'ErrImagePull'
  | 'ImagePullBackOff'
  | 'ErrImageNeverPull'
  | 'InvalidImageName'
  | 'ImageInspectError';

export type ImageResult =
  | { readonly ok: true; readonly image: Image }
  | { readonly ok: false; readonly reason: ImageErrorReason; readonly message: string };

export type RecordEvent = (
  ref: ObjectReference,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
) => void;

const NAME_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REFERENCE = new RegExp(
  `^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?` +
    `${NAME_COMPONENT}(?:/${NAME_COMPONENT})*(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`,
);

/** The image with `:latest` when it names neither tag nor digest (applyDefaultImageTag). */
export function withDefaultTag(image: string): string | undefined {
  if (!REFERENCE.test(image)) return undefined;
  if (image.includes('@')) return image;
  const lastComponent = image.slice(image.lastIndexOf('/') + 1);
  return lastComponent.includes(':') ? image : `${image}:latest`;
}

/** Whether the pull policy asks for a pull (shouldPullImage). */
export function shouldPullImage(policy: string | undefined, present: boolean): boolean {
  if (policy === 'Never') return false;
  return policy === 'Always' || !present;
}

export interface ImageManagerOptions {
  /** The cluster's name, for the `tkube load image` hint (the default cluster needs no --name). */
  readonly clusterName?: string;
  readonly backoff?: Backoff;
  readonly now?: () => number;
}

export class ImageManager {
  private readonly backoff: Backoff;
  private readonly now: () => number;
  /** The last pull error per back-off key, for the ImagePullBackOff message. */
  private readonly lastErrors = new Map<string, string>();

  constructor(
    private readonly cri: CriClient,
    private readonly record: RecordEvent,
    private readonly options: ImageManagerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.backoff = options.backoff ?? new Backoff(undefined, undefined, this.now);
  }

  /** How to get an image onto nodes that cannot pull it. */
  loadHint(image: string): string {
    const cluster = this.options.clusterName;
    const name = cluster && cluster !== 'tkube' ? ` --name ${cluster}` : '';
    return `if the image is on your machine, load it into the cluster with: tkube load image ${image}${name}`;
  }

  /** When the pod's back-off on pulling `image` ends (ms), if it has one. */
  backoffEnd(pod: Pod, image: string): number | undefined {
    return this.backoff.expiresAt(`${pod.metadata?.uid ?? ''}_${image}`);
  }

  forgetPod(uid: string): void {
    this.backoff.forgetPrefix(`${uid}_`);
    for (const key of this.lastErrors.keys()) if (key.startsWith(`${uid}_`)) this.lastErrors.delete(key);
  }

  async ensureImageExists(
    pod: Pod,
    container: Container,
    ref: ObjectReference,
    sandboxConfig: PodSandboxConfig,
  ): Promise<ImageResult> {
    const requested = container.image ?? '';
    const image = withDefaultTag(requested);
    if (image === undefined) {
      const message = `Failed to apply default image tag ${goQuote(requested)}: couldn't parse image reference ${goQuote(requested)}: invalid reference format`;
      this.record(ref, 'Warning', 'InspectFailed', message);
      return { ok: false, reason: 'InvalidImageName', message };
    }
    const annotations = { ...(pod.metadata?.annotations ?? {}) };
    let present: Image | null;
    try {
      present = await this.cri.imageStatus({ image, annotations });
    } catch (error) {
      const message = `Failed to inspect image ${goQuote(requested)}: ${errorText(error)}`;
      this.record(ref, 'Warning', 'InspectFailed', message);
      return { ok: false, reason: 'ImageInspectError', message };
    }
    if (!shouldPullImage(container.imagePullPolicy, present !== null)) {
      if (present) {
        this.record(
          ref,
          'Normal',
          'Pulled',
          `Container image ${goQuote(requested)} already present on machine`,
        );
        return { ok: true, image: present };
      }
      const message = `Container image ${goQuote(requested)} is not present with pull policy of Never`;
      this.record(ref, 'Warning', 'ErrImageNeverPull', message);
      return { ok: false, reason: 'ErrImageNeverPull', message: `${message}; ${this.loadHint(requested)}` };
    }
    const key = `${pod.metadata?.uid ?? ''}_${requested}`;
    if (this.backoff.isInBackOffSinceUpdate(key, this.now())) {
      this.record(ref, 'Normal', 'BackOff', `Back-off pulling image ${goQuote(requested)}`);
      const last = this.lastErrors.get(key);
      const message = `Back-off pulling image ${goQuote(requested)}${last ? `: ErrImagePull: ${last}` : ''}`;
      return { ok: false, reason: 'ImagePullBackOff', message };
    }
    this.record(ref, 'Normal', 'Pulling', `Pulling image ${goQuote(requested)}`);
    const started = this.now();
    try {
      const imageRef = await this.cri.pullImage(
        { image, annotations, userSpecifiedImage: requested },
        sandboxConfig,
      );
      const pulled =
        (await this.cri.imageStatus({ image: imageRef })) ?? (await this.cri.imageStatus({ image }));
      if (!pulled) throw new Error(`image ${imageRef} vanished after the pull`);
      const took = goDuration(this.now() - started);
      this.record(
        ref,
        'Normal',
        'Pulled',
        `Successfully pulled image ${goQuote(requested)} in ${took} (${took} including waiting). Image size: ${pulled.size} bytes.`,
      );
      this.backoff.gc();
      this.lastErrors.delete(key);
      return { ok: true, image: pulled };
    } catch (error) {
      const text = errorText(error);
      this.record(ref, 'Warning', 'Failed', `Failed to pull image ${goQuote(requested)}: ${text}`);
      this.backoff.next(key, this.now());
      const message = `${text}; ${this.loadHint(requested)}`;
      this.lastErrors.set(key, message);
      return { ok: false, reason: 'ErrImagePull', message };
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
