// The sandbox's AWS world as data: public SSM parameters and EC2 images, plus which release each image is.
import type { AmiFamily, Arch, Variant } from '../../ami/families.js';

export type ImageState = 'available' | 'pending' | 'failed' | 'invalid' | 'error' | 'transient' | 'disabled';

/** An EC2 image as DescribeImages reports it (field names follow the SDK's `Image` shape). */
export interface CatalogImage {
  imageId: string;
  name: string;
  description?: string;
  architecture: 'x86_64' | 'arm64';
  state: ImageState;
  stateReason?: { code: string; message: string };
  ownerId: string;
  ownerAlias?: string;
  public: boolean;
  /** ISO 8601 with milliseconds, as EC2 prints it: `2024-09-17T04:12:00.000Z`. */
  creationDate: string;
  deprecationTime?: string;
  platform?: 'windows';
  platformDetails: string;
  usageOperation: string;
  tags: Record<string, string>;
}

export interface CatalogParameter {
  name: string;
  value: string;
  version: number;
  lastModified: Date;
  dataType: 'text' | 'aws:ec2:image';
}

/** One published AMI release for one (family, Kubernetes minor, arch, variant). */
export interface CatalogRelease {
  family: AmiFamily;
  kubernetesVersion: string;
  arch: Arch;
  variant: Variant;
  /** What a pinned alias names: `v20240917` (AL2, AL2023), `1.20.4` (Bottlerocket), `2024.09.17` (Windows). */
  release: string;
  imageId: string;
  imageName: string;
  created: Date;
  /** The SSM folder of this release (for Windows, of the only published release: the newest). */
  parameterPrefix?: string;
}

/** Releases kept aside for tests and scenarios, found without hard-coding IDs. */
export interface NotableEntries {
  /** An old AL2023 release whose image is deprecated, still reachable through its pinned parameter. */
  deprecated?: CatalogRelease;
  /** A release whose pinned parameter survives but whose image was deregistered. */
  deregistered?: CatalogRelease;
  /** Images of the next build, registered but not usable yet. */
  pendingImageId?: string;
  failedImageId?: string;
}

export interface AmiCatalog {
  /** The instant the catalog describes; EC2 deprecation is judged against it unless the server is given a clock. */
  asOf: Date;
  /** The account `self` means in DescribeImages. */
  accountId: string;
  parameters: Map<string, CatalogParameter>;
  images: Map<string, CatalogImage>;
  /** Images that SSM may still point at but DescribeImages no longer returns (an empty answer, not an error). */
  deregisteredImageIds: Set<string>;
  releases: CatalogRelease[];
  notable: NotableEntries;
}

/** What one call knows besides its input: the region from the SigV4 credential scope, the request ID, the clock. */
export interface AwsCallContext {
  region: string;
  requestId: string;
  now: Date;
  /** The caller's account: `self` in DescribeImages, the principal in access-denied messages. */
  accountId: string;
}

/** An HTTP answer, built by the protocol modules and written by the server. */
export interface AwsReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The AWS error code when the reply is an error, for the request log. */
  errorCode?: string;
}
