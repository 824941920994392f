"""The tag vocabularies CMI-Bench's ``evaluate.py`` scores its multi-label tasks against (nicolaus625/CMI-bench
@ 4c15f410: ``genre_set``, ``instrument_set``, ``emotion_set``, the top-50 list and ``data/MTT/tags.npy``), as
released: every tag occurs in the test references. Label *names* only; the per-item labels are the released files."""

from __future__ import annotations

NO_TAG = "(no tag)"
"""A released multi-label reference that is empty (997 MagnaTagATune clips) as stored here: the generation contract
refuses an empty answer, and the tagging metrics read this one as no tag (an all-negative row), as evaluate.py reads
the empty string."""

MTG_GENRE: tuple[str, ...] = (
    '60s', '70s', '80s', '90s', 'acidjazz', 'alternative', 'alternativerock', 'ambient', 'atmospheric', 'blues',
    'bluesrock', 'bossanova', 'breakbeat', 'celtic', 'chanson', 'chillout', 'choir', 'classical', 'classicrock',
    'club', 'contemporary', 'country', 'dance', 'darkambient', 'darkwave', 'deephouse', 'disco', 'downtempo',
    'drumnbass', 'dub', 'dubstep', 'easylistening', 'edm', 'electronic', 'electronica', 'electropop', 'ethno',
    'eurodance', 'experimental', 'folk', 'funk', 'fusion', 'groove', 'grunge', 'hard', 'hardrock', 'hiphop', 'house',
    'idm', 'improvisation', 'indie', 'industrial', 'instrumentalpop', 'instrumentalrock', 'jazz', 'jazzfusion',
    'latin', 'lounge', 'medieval', 'metal', 'minimal', 'newage', 'newwave', 'orchestral', 'pop', 'popfolk', 'poprock',
    'postrock', 'progressive', 'psychedelic', 'punkrock', 'rap', 'reggae', 'rnb', 'rock', 'rocknroll',
    'singersongwriter', 'soul', 'soundtrack', 'swing', 'symphonic', 'synthpop', 'techno', 'trance', 'triphop',
    'world', 'worldfusion',
)

MTG_INSTRUMENT: tuple[str, ...] = (
    'accordion', 'acousticbassguitar', 'acousticguitar', 'bass', 'beat', 'bell', 'bongo', 'brass', 'cello',
    'clarinet', 'classicalguitar', 'computer', 'doublebass', 'drummachine', 'drums', 'electricguitar',
    'electricpiano', 'flute', 'guitar', 'harmonica', 'harp', 'horn', 'keyboard', 'oboe', 'orchestra', 'organ', 'pad',
    'percussion', 'piano', 'pipeorgan', 'rhodes', 'sampler', 'saxophone', 'strings', 'synthesizer', 'trombone',
    'trumpet', 'viola', 'violin', 'voice',
)

MTG_MOOD_THEME: tuple[str, ...] = (
    'action', 'adventure', 'advertising', 'background', 'ballad', 'calm', 'children', 'christmas', 'commercial',
    'cool', 'corporate', 'dark', 'deep', 'documentary', 'drama', 'dramatic', 'dream', 'emotional', 'energetic',
    'epic', 'fast', 'film', 'fun', 'funny', 'game', 'groovy', 'happy', 'heavy', 'holiday', 'hopeful', 'inspiring',
    'love', 'meditative', 'melancholic', 'melodic', 'motivational', 'movie', 'nature', 'party', 'positive',
    'powerful', 'relaxing', 'retro', 'romantic', 'sad', 'sexy', 'slow', 'soft', 'soundscape', 'space', 'sport',
    'summer', 'trailer', 'travel', 'upbeat', 'uplifting',
)

MTG_TOP50: tuple[str, ...] = (
    'acousticguitar', 'alternative', 'ambient', 'atmospheric', 'bass', 'chillout', 'classical', 'computer', 'dance',
    'downtempo', 'drummachine', 'drums', 'easylistening', 'electricguitar', 'electricpiano', 'electronic',
    'emotional', 'energetic', 'experimental', 'film', 'folk', 'funk', 'guitar', 'happy', 'hiphop', 'house', 'indie',
    'instrumentalpop', 'jazz', 'keyboard', 'lounge', 'metal', 'newage', 'orchestral', 'piano', 'pop', 'popfolk',
    'poprock', 'reggae', 'relaxing', 'rock', 'soundtrack', 'strings', 'synthesizer', 'techno', 'trance', 'triphop',
    'violin', 'voice', 'world',
)

MTT_TOP50: tuple[str, ...] = (
    'ambient', 'beat', 'beats', 'cello', 'choir', 'choral', 'classic', 'classical', 'country', 'dance', 'drums',
    'electronic', 'fast', 'female', 'female vocal', 'female voice', 'flute', 'guitar', 'harp', 'harpsichord',
    'indian', 'loud', 'male', 'male vocal', 'male voice', 'man', 'metal', 'new age', 'no vocal', 'no vocals',
    'no voice', 'opera', 'piano', 'pop', 'quiet', 'rock', 'singing', 'sitar', 'slow', 'soft', 'solo', 'strings',
    'synth', 'techno', 'violin', 'vocal', 'vocals', 'voice', 'weird', 'woman',
)

VOCABULARIES: dict[str, tuple[str, ...]] = {
    'MTG_genre': MTG_GENRE,
    'MTG_instrument': MTG_INSTRUMENT,
    'MTG_emotion': MTG_MOOD_THEME,
    'MTG_top50tags': MTG_TOP50,
    'MTT': MTT_TOP50,
}
