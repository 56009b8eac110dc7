// The sandbox API server's TLS material: a certificate authority generated at start and a serving certificate it
// signs, as kubeadm's `certs` phase makes `ca.crt` and `apiserver.crt`. Real clusters are reached only over TLS,
// so the kubeconfig carries the CA's PEM as certificate-authority-data and clients verify the server as they would
// an EKS endpoint (issue 3). selfsigned signs with WebCrypto: no openssl binary is needed.
import { generate } from 'selfsigned';

export interface ServingCertificates {
  /** PEM of the CA: the kubeconfig's certificate-authority-data. */
  caCert: string;
  /** PEM chain served by the API server: the serving certificate then the CA. */
  cert: string;
  key: string;
}

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

export async function generateServingCertificates(now = new Date()): Promise<ServingCertificates> {
  // Back-dated by a day so a client with a slightly skewed clock still accepts the chain.
  const notBeforeDate = new Date(now.getTime() - ONE_DAY_MS);
  const notAfterDate = new Date(now.getTime() + 365 * ONE_DAY_MS);
  const ca = await generate([{ name: 'commonName', value: 'karp-drift-sandbox-ca' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      {
        name: 'keyUsage',
        keyCertSign: true,
        cRLSign: true,
        digitalSignature: true,
        critical: true,
      },
    ],
  });
  const serving = await generate([{ name: 'commonName', value: 'kube-apiserver' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'keyUsage',
        digitalSignature: true,
        keyEncipherment: true,
        critical: true,
      },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 2, value: 'kubernetes' },
          { type: 2, value: 'kubernetes.default.svc' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return {
    caCert: ca.cert,
    cert: `${serving.cert.trim()}\n${ca.cert.trim()}\n`,
    key: serving.private,
  };
}
