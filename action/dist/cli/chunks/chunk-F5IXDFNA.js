import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
function inOrder(a,b){return a<b?-1:a>b?1:0}var byName=(a,b)=>inOrder(a.name,b.name);export{inOrder,byName};
