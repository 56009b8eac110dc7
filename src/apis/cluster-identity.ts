// Which cluster a machine-readable document is about (plan, status, the NDJSON `done` event): the kubeconfig context,
// its API server, and a cluster name. The name is the kubeconfig's cluster entry, except that `aws eks
// update-kubeconfig` names that entry by the cluster's ARN (arn:aws:eks:<region>:<account>:cluster/<name>), whose
// last part is the EKS cluster name scripts compare with. No credentials: the server loses any user:password.

export interface ClusterIdentity {
  /** The kubeconfig context used (--context, else current-context). */
  context: string;
  /** The API server URL of that context's cluster. */
  server: string;
  /** The context's cluster entry name in the kubeconfig. */
  kubeconfigCluster: string;
  /** The EKS cluster name when kubeconfigCluster is an EKS cluster ARN, else kubeconfigCluster. */
  name: string;
}

const EKS_ARN = /^arn:aws[\w-]*:eks:[\w-]+:\d{12}:cluster\/([\w-]+)$/;

export function clusterIdentity(context: string, kubeconfigCluster: string, server: string): ClusterIdentity {
  return {
    context,
    server: withoutUserinfo(server),
    kubeconfigCluster,
    name: EKS_ARN.exec(kubeconfigCluster)?.[1] ?? kubeconfigCluster,
  };
}

function withoutUserinfo(server: string): string {
  try {
    const url = new URL(server);
    if (url.username === '' && url.password === '') return server;
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/+$/, '');
  } catch {
    return server;
  }
}
