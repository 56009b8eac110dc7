import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{COMMAND_TIMEOUT_MS}from"./chunk-7BXXIESX.js";var DEFAULT_GATES={builtIn:true,initDeadlineMs:COMMAND_TIMEOUT_MS,podReadyDeadlineMs:5*6e4,maxRestarts:3,failureLimit:1,commandTimeoutMs:5*6e4,onFailure:"pause"};var checkpointKey=c=>`${c.stage}/${c.wave}/${c.point}`;export{DEFAULT_GATES,checkpointKey};
