// What a pin replaces. Terms that float (`<family>@latest`, tags, a name pattern, an owner, an SSM parameter) pick up
// new images by themselves; after the pin the class launches only the pinned AMIs until the next upgrade, and the
// plan says so. A class that runs custom images (names that are not EKS-optimized names of its family: a golden
// AMI pipeline) would silently lose what those images add, so that is refused unless asked for.
import type { AmiFamily } from '../ami/families.js';
import { imageNameFields } from '../ami/verify.js';
import type { AmiSelectorTerm, NodeClassView } from '../karpenter/views.js';
import { check, type Check } from './checks.js';
import { amiSelectorTermText } from '../text/words.js';
import type { AmiSpec } from './ami-spec.js';

/** Why a term floats, or undefined for a term that names fixed images (an id, a pinned alias). */
export function floatingTerm(term: AmiSelectorTerm): string | undefined {
  if (term.alias !== undefined)
    return term.alias.endsWith('@latest') ? "follows the newest release for the control plane's version" : undefined;
  if (term.id !== undefined) return undefined;
  if (term.ssmParameter !== undefined) return 'follows whatever the SSM parameter points at';
  // An exact name under one owner (what --pin name writes) names one image: an account cannot register two of a name.
  if (term.name !== undefined && !/[*?]/.test(term.name) && term.owner !== undefined && term.owner !== 'self' && term.tags === undefined)
    return undefined;
  if (term.tags !== undefined || term.name !== undefined || term.owner !== undefined)
    return 'selects the newest image that matches, so a newly registered image is picked up';
  return undefined;
}

/** status.amis that are not EKS-optimized images of the class's family (by name; a nameless entry proves nothing). */
export function customAmis(view: NodeClassView, family: AmiFamily): Array<{ id: string; name: string }> {
  return view.statusAmis.flatMap((a) =>
    a.name !== undefined && imageNameFields(family, a.name) === undefined ? [{ id: a.id, name: a.name }] : [],
  );
}

export function selectorChecks(
  view: NodeClassView,
  family: AmiFamily,
  after: AmiSpec,
  replaceCustomAmis: boolean,
): Check[] {
  const checks: Check[] = [];
  const pinned = after.amiSelectorTerms.map(amiSelectorTermText).join('; ');
  const custom = customAmis(view, family);
  if (custom.length > 0) {
    checks.push(
      check(
        'CUSTOM-AMI',
        replaceCustomAmis ? 'warning' : 'error',
        `ec2nodeclass/${view.name} runs custom AMIs, not EKS-optimized ${family} images: the pin would replace them with ${pinned}, and the nodes would lose whatever those images add`,
        [
          `amiSelectorTerms: ${view.amiSelectorTerms.map(amiSelectorTermText).join('; ')}`,
          ...custom.map((a) => `status.amis: ${a.id} (${a.name})`),
        ],
        replaceCustomAmis
          ? 'the class moves to EKS-optimized AMIs (--replace-custom-amis); karp-drift rollback restores the custom selection'
          : 'build your image for the target version and point amiSelectorTerms at it yourself, or re-run with --replace-custom-amis to move the class to EKS-optimized AMIs on purpose',
      ),
    );
  }
  const floating = view.amiSelectorTerms.flatMap((t) => {
    const why = floatingTerm(t);
    return why === undefined ? [] : [`${amiSelectorTermText(t)} ${why}`];
  });
  if (floating.length > 0) {
    const now = view.statusAmis.map((a) => `${a.id}${a.name !== undefined ? ` (${a.name})` : ''}`);
    checks.push(
      check(
        'SELECTOR-REPLACED',
        'info',
        `ec2nodeclass/${view.name}: the pin replaces terms that float with ${pinned}; from then on the class launches only these AMIs, and new images reach it only through the next upgrade`,
        [...floating, ...(now.length > 0 ? [`they resolve now to ${now.join(', ')}`] : [])],
        'karp-drift rollback restores the floating terms',
      ),
    );
  }
  return checks;
}
