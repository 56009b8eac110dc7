// Names as the real producers choose them, from a seeded generator: kube-apiserver's generateName suffix
// (Karpenter names NodeClaims `<nodepool>-` + 5 characters), EC2 private DNS names and instance IDs, ReplicaSet
// pod-template hashes. Each function takes the set of names already used and adds to it, because a 5-character
// suffix collides about once in 5,000 draws.
import { REGION, ZONES } from '../karpenter/objects.js';
import type { SeededRandom } from './random.js';

// apimachinery names.SimpleNameGenerator and rand.SafeEncodeString: no vowels, no look-alikes.
const KUBE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const HEX = '0123456789abcdef';

function unique(taken: Set<string>, draw: () => string): string {
  for (;;) {
    const name = draw();
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

/** `<prefix><5 characters>`, as a `generateName` create names an object. */
export function generatedName(rng: SeededRandom, prefix: string, taken: Set<string>): string {
  return unique(taken, () => `${prefix}${rng.chars(5, KUBE_ALPHABET)}`);
}

/** A NodeClaim name: Karpenter creates them with `generateName: <nodepool>-`. */
export function nodeClaimName(rng: SeededRandom, nodePool: string, taken: Set<string>): string {
  return generatedName(rng, `${nodePool}-`, taken);
}

/**
 * The EC2 private DNS name the kubelet registers as (`ip-10-0-37-182.us-west-2.compute.internal`). Each zone has
 * its own /18 of 10.0.0.0/16, as a VPC with one private subnet per zone is usually cut.
 */
export function privateDnsName(rng: SeededRandom, zoneIndex: number, taken: Set<string>): string {
  const zone = zoneIndex % ZONES.length;
  return unique(taken, () => `ip-10-0-${zone * 64 + rng.int(0, 63)}-${rng.int(1, 254)}.${REGION}.compute.internal`);
}

/** The node's IPv4 address, read back from its private DNS name. */
export function ipOfDnsName(dnsName: string): string {
  const m = /^ip-(\d+)-(\d+)-(\d+)-(\d+)\./.exec(dnsName);
  return m ? `${m[1]}.${m[2]}.${m[3]}.${m[4]}` : '10.0.0.1';
}

/** `length` lowercase hex digits, 8 per draw. */
export function hexDigits(rng: SeededRandom, length: number): string {
  let out = '';
  while (out.length < length) out += rng.int(0, 0xffffffff).toString(16).padStart(8, '0');
  return out.slice(0, length);
}

/** `i-0` + 16 hex digits: the 17-digit form EC2 has issued since 2016. */
export function instanceId(rng: SeededRandom, taken: Set<string>): string {
  return unique(taken, () => `i-0${hexDigits(rng, 16)}`);
}

/** A ReplicaSet's `pod-template-hash` (10 characters, as a Deployment's template hash is encoded). */
export function templateHash(rng: SeededRandom): string {
  return rng.chars(10, KUBE_ALPHABET);
}

/** An RFC 4122 version-4 UID, for owners the sandbox does not serve (ReplicaSets, DaemonSets). */
export function seededUid(rng: SeededRandom): string {
  const h = hexDigits(rng, 32);
  const variant = HEX[8 + rng.int(0, 3)] ?? '8';
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
