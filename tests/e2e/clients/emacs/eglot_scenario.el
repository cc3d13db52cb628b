;;; eglot_scenario.el --- Emacs + eglot (Debian elpa-eglot) drive a real ggd -*- lexical-binding: t -*-
;; The docs/clients.md setup: gg as the python-mode server, `gg.ask' sent as
;; `workspace/executeCommand' without waiting, as its `gg--command' does.  eglot asks
;; the approval with `completing-read', which in batch mode reads a line from stdin: the
;; test writes "Allow" there, as a user types it.
;; GG_TEST_ARGS (JSON): {cmd, source, target, expect, prompt, within}; result to GG_TEST_RESULT.
(require 'eglot)
(require 'json)

(defvar gg-args (json-parse-string (getenv "GG_TEST_ARGS") :object-type 'plist :array-type 'list))
(defvar gg-asked nil)
(defvar gg-eglot-dir  ; e.g. "eglot-1.9": which eglot answered
  (let ((lib (locate-library "eglot")))
    (and lib (file-name-nondirectory (directory-file-name (file-name-directory lib))))))

(defun gg-events ()
  "The tail of eglot's JSON-RPC events buffer: what went over the wire."
  (let ((server (ignore-errors (eglot-current-server))))
    (if (not server) ""
      (with-current-buffer (jsonrpc-events-buffer server)
        (buffer-substring-no-properties (max (point-min) (- (point-max) 6000)) (point-max))))))

(defun gg-finish (ok &optional err)
  (setq gg-result (list :ok (if ok t :json-false)
                        :error (if err (concat err "\n" (gg-events)) :null)
                        :asked (or gg-asked []) :eglot (or gg-eglot-dir :null)))
  (with-temp-file (getenv "GG_TEST_RESULT")
    (insert (json-encode gg-result)))
  (kill-emacs (if ok 0 1)))


;; Record each question as eglot shows it (the real handler still answers).
(advice-add 'completing-read :before
            (lambda (prompt &rest _) (push prompt gg-asked)))

(defun gg-wait (pred what)
  (let ((deadline (+ (float-time) (plist-get gg-args :within))))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (gg-finish nil (format "timed out waiting for %s" what)))
      (accept-process-output nil 0.05))))

(condition-case err
    (progn
      (setq eglot-sync-connect t)  ; block until initialize answers
      (add-to-list 'eglot-server-programs `(python-mode . ,(plist-get gg-args :cmd)))
      (find-file (plist-get gg-args :source))
      (python-mode)
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server)))
        (unless server
          (gg-finish nil (format "eglot did not connect: %S %S"
                                 (eglot--guess-contact)
                                 (with-current-buffer (get-buffer-create "*Messages*")
                                   (buffer-string)))))
        ;; Asynchronous, as docs/clients.md's `gg--command': with the synchronous
        ;; `eglot-execute-command' about half of the runs never saw the approval request.
        (jsonrpc-async-request server :workspace/executeCommand
                               (list :command "gg.ask"
                                     :arguments (vector (plist-get gg-args :prompt)))
                               :success-fn #'ignore)
        (let ((target (plist-get gg-args :target)))
          (gg-wait (lambda ()
                     (and (file-exists-p target)
                          (equal (with-temp-buffer (insert-file-contents target) (buffer-string))
                                 (plist-get gg-args :expect))))
                   "the approved write"))
        (ignore-errors (eglot-shutdown server))
        (gg-finish t)))
  (error (gg-finish nil (format "%S" err))))
