// What a failed volume set-up tells the pod worker: the event reason and the message the
// kubelet of Kubernetes 1.33 reports for it.

/** `FailedMount` for a volume source that cannot be set up; `CreateContainerConfigError` for a bad subPath. */
export type VolumeSetUpReason = 'FailedMount' | 'CreateContainerConfigError';

export class VolumeSetUpError extends Error {
  override readonly name = 'VolumeSetUpError';
  constructor(
    readonly reason: VolumeSetUpReason,
    message: string,
    /** The container whose mounts failed (subPath problems); absent for a volume's own failure. */
    readonly containerName?: string,
  ) {
    super(message);
  }
}

/** The operation executor's simple error text: `MountVolume.SetUp failed for volume "x" : <cause>`. */
export function mountFailure(volumeName: string, cause: string): VolumeSetUpError {
  return new VolumeSetUpError(
    'FailedMount',
    `MountVolume.SetUp failed for volume "${volumeName}" : ${cause}`,
  );
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
