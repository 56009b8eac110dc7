import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{forScreen}from"./chunk-SBG7ZAHY.js";function logger(io,options){const err=text=>io.err(forScreen(io,"err",text));return{info:m=>{if(!options.quiet)err(`${m}
`)},warn:m=>err(`warning: ${m}
`),debug:m=>{if(options.verbose)err(`debug: ${m}
`)}}}export{logger};
