import { Notes } from './notes';

describe('Notes', () => {
  it('groups by why, in the order first noted, and lists five of a group, counting the rest', () => {
    const notes = new Notes();
    expect(notes.phrases()).toStrictEqual([]);
    for (let n = 1; n <= 7; n++) notes.add('not read (over 100 bytes)', `big${n}.py`);
    notes.add('syntax errors, read in part', 'a.py line 3');
    notes.add('not read (over 100 bytes)', 'big8.py');
    expect(notes.phrases()).toStrictEqual(['not read (over 100 bytes): big1.py, big2.py, big3.py, big4.py, big5.py and 3 more', 'syntax errors, read in part: a.py line 3']);
  });
});
