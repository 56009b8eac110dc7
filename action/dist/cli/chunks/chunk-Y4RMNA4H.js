import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
function budgetMapping(members){const counted=[];const disrupting=[];for(const m of members){if(!m.initialized||m.instanceTerminating)continue;counted.push(m);if(!m.ready||m.markedForDeletion)disrupting.push(m)}return{counted,disrupting}}export{budgetMapping};
