import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
var DEFAULT_GATES={builtIn:true,initDeadlineMs:15*6e4,podReadyDeadlineMs:5*6e4,maxRestarts:3,failureLimit:1,commandTimeoutMs:5*6e4,onFailure:"pause"};var checkpointKey=c=>`${c.stage}/${c.wave}/${c.point}`;export{DEFAULT_GATES,checkpointKey};
