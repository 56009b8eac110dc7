// The part of an EC2NodeClass a pin changes, as the plan compares it before and after (pin.ts, selectors.ts).
import type { AmiSelectorTerm } from '../karpenter/views.js';

/** The AMI-selecting part of an EC2NodeClass spec: all that karp-drift changes. */
export interface AmiSpec {
  amiFamily?: string;
  amiSelectorTerms: AmiSelectorTerm[];
}
