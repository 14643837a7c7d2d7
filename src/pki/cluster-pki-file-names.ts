// The cluster PKI's file names in its directory (kubeadm's), apart from cluster-pki.ts so that the
// control plane's entry point can look for a file without loading the certificate code.
export const CLUSTER_PKI_FILE_NAMES = {
  caCertificate: 'ca.crt',
  caKey: 'ca.key',
  apiServerCertificate: 'apiserver.crt',
  apiServerKey: 'apiserver.key',
  adminCertificate: 'admin.crt',
  adminKey: 'admin.key',
  serviceAccountKey: 'sa.key',
  serviceAccountPublicKey: 'sa.pub',
} as const;
