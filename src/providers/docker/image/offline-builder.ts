// The offline builder: a node image from the host's own programs (Debian packages docker.io,
// containernetworking-plugins, iptables, iproute2, conntrack, busybox-static), their shared
// libraries, and the Node.js running tkube, imported with `docker import`. No registry, no
// package download.
import { lstat, readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type Dockerode from 'dockerode';
import { execa } from 'execa';
import { readEngineMessages } from '../engine-stream.js';
import { findExecutable, sharedLibraries } from './host-binaries.js';
import { fileIdentity } from './inputs.js';
import { NODE_ENTRYPOINT, NODE_IMAGE_ENV_PATH, NODE_IMAGE_LABELS, PAUSE_ARCHIVE_PATH } from './layout.js';
import { Rootfs } from './rootfs.js';

/** Program → the Debian package that brings it (for the error that lists what is missing). */
const PROGRAMS: Record<string, string> = {
  containerd: 'docker.io',
  'containerd-shim-runc-v2': 'docker.io',
  ctr: 'docker.io',
  runc: 'docker.io',
  conntrack: 'conntrack',
  ip: 'iproute2',
  'xtables-nft-multi': 'iptables',
  'xtables-legacy-multi': 'iptables',
  busybox: 'busybox-static',
  // /bin/sh: busybox-static's sh runs its own applets before PATH (its `ip` over iproute2's).
  dash: 'dash',
};

export const CNI_PLUGINS = ['bridge', 'host-local', 'loopback', 'portmap'];
const CNI_DIRECTORIES = ['/usr/lib/cni', '/opt/cni/bin'];
const NODE_CNI_DIRECTORY = '/usr/lib/cni';

/** busybox applets a node must not have: it is not a machine to boot or power off. */
const EXCLUDED_APPLETS = new Set(['init', 'linuxrc', 'halt', 'poweroff', 'reboot']);

export interface OfflineSources {
  programs: Record<string, string>;
  cniPlugins: Record<string, string>;
  /** iptables extensions: dlopen()ed, so ldd does not list them. */
  xtablesDir: string;
  node: string;
}

/** Finds every host file the image needs; one error lists all that are missing. */
export async function findOfflineSources(nodeBinary: string): Promise<OfflineSources> {
  const programs: Record<string, string> = {};
  const missingPackages = new Set<string>();
  const missing: string[] = [];
  for (const [name, debianPackage] of Object.entries(PROGRAMS)) {
    const path = await findExecutable(name);
    if (path === undefined) {
      missing.push(name);
      missingPackages.add(debianPackage);
    } else programs[name] = path;
  }
  const cniPlugins: Record<string, string> = {};
  for (const plugin of CNI_PLUGINS) {
    const path = await firstExisting(CNI_DIRECTORIES.map((dir) => join(dir, plugin)));
    if (path === undefined) {
      missing.push(`CNI plugin ${plugin}`);
      missingPackages.add('containernetworking-plugins');
    } else cniPlugins[plugin] = path;
  }
  const xtablesDir = programs['xtables-nft-multi']
    ? await findXtablesDir(programs['xtables-nft-multi'])
    : undefined;
  if (programs['xtables-nft-multi'] && xtablesDir === undefined) {
    missing.push('the xtables extensions directory');
    missingPackages.add('iptables');
  }
  if (missing.length > 0 || xtablesDir === undefined) {
    throw new Error(
      `the offline node image builder needs host programs that are missing: ${missing.join(', ')}; ` +
        `install them (apt-get install -y ${[...missingPackages].sort().join(' ')}) or use --builder dockerfile`,
    );
  }
  return { programs, cniPlugins, xtablesDir, node: await realpath(nodeBinary) };
}

/** What identifies these sources for the image tag. */
export async function offlineSourceIdentities(sources: OfflineSources): Promise<Record<string, string>> {
  const identities: Record<string, string> = {};
  const files = { ...sources.programs, ...prefixed('cni/', sources.cniPlugins), node: sources.node };
  for (const [name, path] of Object.entries(files)) identities[name] = await fileIdentity(path);
  identities.xtables = await fileIdentity(sources.xtablesDir);
  return identities;
}

export async function assembleOfflineRootfs(
  sources: OfflineSources,
  templates: Map<string, Buffer>,
  pauseArchive: Buffer,
): Promise<Rootfs> {
  const rootfs = new Rootfs();
  await mirrorTopLevelSymlinks(rootfs);
  for (const dir of ['/proc', '/sys', '/dev', '/run', '/var/lib/containerd', '/var/log', '/etc/cni/net.d']) {
    rootfs.addDirectory(dir);
  }
  rootfs.addDirectory('/tmp', 0o1777);
  rootfs.addDirectory('/root', 0o700);
  rootfs.addSymlink('/var/run', '../run');

  const landed: Record<string, string> = {};
  for (const [name, path] of Object.entries(sources.programs)) landed[name] = await rootfs.copyFromHost(path);
  for (const [plugin, path] of Object.entries(sources.cniPlugins)) {
    await rootfs.copyFileFromHost(path, join(NODE_CNI_DIRECTORY, plugin), 0o755);
  }
  await rootfs.copyFileFromHost(sources.node, '/usr/local/bin/node', 0o755);
  await rootfs.copyTreeFromHost(sources.xtablesDir);

  const extensions = (await readdir(sources.xtablesDir)).filter((name) => name.endsWith('.so'));
  const libraries = await sharedLibraries([
    ...Object.values(sources.programs),
    sources.node,
    ...extensions.map((name) => join(sources.xtablesDir, name)),
  ]);
  for (const library of libraries) await rootfs.copyFromHost(library);

  addIptablesLinks(rootfs, dirname(landed['xtables-nft-multi']!));
  rootfs.addSymlink('/bin/sh', landed.dash!);
  await addBusyboxApplets(rootfs, sources.programs.busybox!, landed.busybox!);
  await addSystemFiles(rootfs);

  rootfs.addFile('/etc/containerd/config.toml', template(templates, 'containerd.toml'));
  rootfs.addFile(NODE_ENTRYPOINT, template(templates, 'entrypoint.sh'), 0o755);
  rootfs.addFile(PAUSE_ARCHIVE_PATH, pauseArchive);
  return rootfs;
}

/** `docker import` of the rootfs with the image configuration set; returns the image id. */
export async function importRootfs(docker: Dockerode, rootfs: Rootfs, tag: string): Promise<string> {
  const [repo, version] = splitTag(tag);
  const labels = Object.entries({ ...NODE_IMAGE_LABELS, 'dev.tkube.node-image.builder': 'offline' })
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(' ');
  const response = await docker.importImage(rootfs.tar(), {
    repo,
    tag: version,
    changes: [`ENTRYPOINT ["${NODE_ENTRYPOINT}"]`, `ENV PATH=${NODE_IMAGE_ENV_PATH}`, `LABEL ${labels}`],
  });
  const messages = await readEngineMessages(response, `importing ${tag}`);
  const id = messages.map((message) => message.status).find((status) => status?.startsWith('sha256:'));
  return id ?? (await docker.getImage(tag).inspect()).Id;
}

function template(templates: Map<string, Buffer>, name: string): Buffer {
  const content = templates.get(name);
  if (content === undefined) throw new Error(`templates/node/${name} is missing`);
  return content;
}

/** /bin, /lib... as on the host, so copied paths and busybox's applet paths agree with it. */
async function mirrorTopLevelSymlinks(rootfs: Rootfs): Promise<void> {
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    try {
      if ((await lstat(dir)).isSymbolicLink()) rootfs.addSymlink(dir, await readlink(dir));
    } catch {
      // not on this host
    }
  }
}

/** Both backends under their own names; plain `iptables` is pointed at one by the entrypoint. */
function addIptablesLinks(rootfs: Rootfs, sbin: string): void {
  for (const family of ['iptables', 'ip6tables']) {
    for (const suffix of ['', '-save', '-restore']) {
      for (const mode of ['nft', 'legacy']) {
        rootfs.addSymlink(join(sbin, `${family}-${mode}${suffix}`), `xtables-${mode}-multi`);
      }
      rootfs.addSymlink(join(sbin, `${family}${suffix}`), 'xtables-nft-multi');
    }
  }
}

async function addBusyboxApplets(rootfs: Rootfs, hostBusybox: string, landed: string): Promise<void> {
  const { stdout } = await execa(hostBusybox, ['--list-full']);
  for (const applet of stdout.split('\n').map((line) => line.trim())) {
    if (applet === '' || EXCLUDED_APPLETS.has(applet.split('/').pop()!)) continue;
    const path = `/${applet}`;
    if (!rootfs.has(path)) rootfs.addSymlink(path, landed);
  }
}

async function addSystemFiles(rootfs: Rootfs): Promise<void> {
  rootfs.addFile(
    '/etc/passwd',
    'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n',
  );
  rootfs.addFile('/etc/group', 'root:x:0:\nnogroup:x:65534:\n');
  rootfs.addFile('/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n');
  rootfs.addFile('/etc/os-release', await osRelease());
  for (const file of ['/etc/protocols', '/etc/services', '/etc/ethertypes']) {
    if (await exists(file)) await rootfs.copyFromHost(file);
  }
  for (const dir of ['/etc/iproute2', '/usr/share/iproute2']) {
    if (await exists(dir)) await rootfs.copyTreeFromHost(dir);
  }
}

async function osRelease(): Promise<string> {
  let host = 'Linux';
  try {
    host = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(await readFile('/etc/os-release', 'utf8'))?.[1] ?? host;
  } catch {
    // no os-release on the host
  }
  return `PRETTY_NAME="tkube node (${host} binaries)"\nNAME="tkube node"\nID=tkube-node\nID_LIKE=debian\n`;
}

async function findXtablesDir(xtablesMulti: string): Promise<string | undefined> {
  const libraries = await sharedLibraries([xtablesMulti]);
  const libxtables = libraries.find((library) => /\/libxtables\.so/.test(library));
  const candidates = [
    ...(libxtables ? [join(dirname(await realpath(libxtables)), 'xtables')] : []),
    '/usr/lib/x86_64-linux-gnu/xtables',
    '/usr/lib/aarch64-linux-gnu/xtables',
    '/usr/lib64/xtables',
    '/usr/lib/xtables',
  ];
  return firstExisting(candidates);
}

async function firstExisting(paths: string[]): Promise<string | undefined> {
  for (const path of paths) if (await exists(path)) return path;
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function prefixed(prefix: string, record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [`${prefix}${key}`, value]));
}

function splitTag(tag: string): [string, string] {
  const colon = tag.lastIndexOf(':');
  return [tag.slice(0, colon), tag.slice(colon + 1)];
}
