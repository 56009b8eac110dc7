import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
function logger(io,options){return{info:m=>{if(!options.quiet)io.err(`${m}
`)},warn:m=>io.err(`warning: ${m}
`),debug:m=>{if(options.verbose)io.err(`debug: ${m}
`)}}}export{logger};
