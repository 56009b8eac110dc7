import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
var markedForDeletion=m=>m.marked||m.nodeClaimDeleting||m.instanceTerminating;function budgetMapping(members){const counted=[];const disrupting=[];for(const m of members){if(!m.initialized||m.instanceTerminating)continue;counted.push(m);if(!m.ready||markedForDeletion(m))disrupting.push(m)}return{counted,disrupting}}export{markedForDeletion,budgetMapping};
