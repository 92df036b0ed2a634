// A stand-in for a training script: no download, no GPU. It "trains" for --epochs epochs, printing
// Katib's default metrics format (`name=value`) on stdout once per epoch, with an accuracy that
// depends on --lr and --momentum the way a real model's loosely does: best near lr 0.03, momentum
// 0.9. --seconds-per-epoch makes a run last long enough for early stopping to matter.
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    lr: { type: 'string', default: '0.01' },
    momentum: { type: 'string', default: '0.5' },
    optimizer: { type: 'string', default: 'sgd' },
    epochs: { type: 'string', default: '8' },
    'seconds-per-epoch': { type: 'string', default: '0.25' },
  },
});
const lr = Number(values.lr);
const momentum = Number(values.momentum);
const epochs = Number(values.epochs);
if (!(lr > 0) || !(momentum >= 0 && momentum < 1) || !(epochs >= 1)) {
  process.stderr.write(
    `bad arguments: --lr ${values.lr} --momentum ${values.momentum} --epochs ${values.epochs}\n`,
  );
  process.exit(2);
}
// How good these settings are, 0..1: a smooth bowl around the best values.
const fit = Math.exp(-((Math.log10(lr) - Math.log10(0.03)) ** 2) * 1.5 - ((momentum - 0.9) / 0.4) ** 2);
const optimizerBonus = values.optimizer === 'adam' ? 0.03 : 0;
// Poor settings end far below good ones, as in real training: medianstop has trials to stop.
const ceiling = Math.min(0.99, 0.3 + 0.65 * fit + optimizerBonus);

for (let epoch = 1; epoch <= epochs; epoch++) {
  await new Promise((resolve) => setTimeout(resolve, Number(values['seconds-per-epoch']) * 1000));
  const progress = 1 - Math.exp(-epoch / 2.5);
  const accuracy = 0.1 + (ceiling - 0.1) * progress;
  const loss = (1 - accuracy) * 2.2;
  process.stdout.write(`epoch ${epoch}: accuracy=${accuracy.toFixed(4)} loss=${loss.toFixed(4)}\n`);
}
