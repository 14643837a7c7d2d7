// Where things are inside a node image, whichever builder made it. templates/node/Dockerfile
// spells the same paths.

export const NODE_ENTRYPOINT = '/usr/local/bin/tkube-entrypoint';
export const PAUSE_ARCHIVE_PATH = '/opt/tkube/pause.tar';
export const NODE_IMAGE_ENV_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The entrypoint's run directory: its markers and the agent's pid file. */
export const NODE_RUN_DIR = '/run/tkube';
/** Written by the entrypoint once containerd answers and the pause image is in place. */
export const CONTAINERD_READY_MARKER = `${NODE_RUN_DIR}/containerd.ready`;

export const NODE_IMAGE_LABELS = { 'dev.tkube.image': 'node' } as const;
