// Pure: is the image EC2 returned here exactly the tested AMI a promoted file records? The same checks as for an SSM
// answer (available, architecture, an EKS-optimized name for the family, minor and variant; deprecation judged by
// the plan), plus the one that makes it "exactly that": the image name, which names the release, is the file's.
import type { PromotedAmi } from './amis-file.js';
import { ssmParameterPath, type AmiQuery } from './parameters.js';
import { resolvedAmi, verifyImage, type ImageView, type ResolvedAmi } from './verify.js';

export interface PromotedLookup {
  /** The file's base name, or `context <name>` for a source cluster (amis-file.ts testedName), for messages. */
  file: string;
  /** This region. */
  region: string;
  /** id: DescribeImages by the file's ID (same region); name: by exact name, owner amazon (another region). */
  lookup: 'id' | 'name';
}

/** `images`: what DescribeImages returned for this AMI's ID or exact name (none, one, or several owners' copies). */
export function verifyPromoted(
  ami: PromotedAmi,
  to: string,
  images: readonly ImageView[],
  where: PromotedLookup,
  now: Date,
): ResolvedAmi {
  const q: AmiQuery = {
    family: ami.family,
    kubernetesVersion: to,
    arch: ami.arch,
    variant: ami.variant,
    release: ami.release,
  };
  // The name comparison below pins the release; verifyImage's own release check would need a release spelled the way
  // it parses names, which a Windows build date need not be.
  const asLatest: AmiQuery = { ...q, release: 'latest' };
  const image = images.length === 1 ? images[0] : undefined;
  const verdict = verifyImage(asLatest, image, now);
  if (images.length === 0) {
    verdict.failures = [
      where.lookup === 'id'
        ? `EC2 DescribeImages in ${where.region} does not return ${ami.id} (${ami.name}), which ${where.file} records: it was deregistered since it was tested, or is not available`
        : `EC2 DescribeImages in ${where.region} finds no image named ${ami.name} owned by amazon, which ${where.file} records: that release is not published in ${where.region}, or was deregistered`,
    ];
  } else if (images.length > 1) {
    verdict.failures = [
      `EC2 DescribeImages in ${where.region} finds ${images.length} images named ${ami.name} owned by amazon (${images.map((i) => i.id).join(', ')}): which one was tested is ambiguous`,
    ];
  } else if (image !== undefined && image.name !== ami.name) {
    verdict.failures.unshift(
      `${image.id} is named ${image.name ?? '(no name)'}, not ${ami.name} as ${where.file} records: it is not the image that was tested`,
    );
  }
  const id = image?.id ?? ami.id;
  const resolved = resolvedAmi(q, id, {}, image, verdict);
  return { ...resolved, name: image?.name ?? ami.name, parameter: ssmParameterPath(q) };
}
